#!/usr/bin/env python3
"""Write a serpentine maze scene with one squad: the worst case for A* and string pulling.

    bench/maze.py OUT_DIR [SIZE]      (SIZE 64..4096, default 4096)

OUT_DIR gets maze<SIZE>.png (one pixel per cell) and maze<SIZE>.yaml. Corridors 3 cells wide
run the whole width, joined at alternate ends, so the squad's path from the bottom corridor to
the top one is about SIZE^2 / 4 cells long. Time it with `throng check OUT_DIR/maze4096.yaml`.
"""
import struct
import sys
import zlib


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 4096
    if not 64 <= n <= 4096 or n % 4:
        sys.exit("maze.py: SIZE must be a multiple of 4 in 64..4096")
    rows = []
    for y in range(n):
        k = y // 4
        row = bytearray(b"\xff" * (3 * n))
        if y % 4 == 3:
            for x in range(n):
                gap = x >= n - 4 if k % 2 == 0 else x < 3
                if not gap:
                    row[3 * x:3 * x + 3] = b"\x00\x00\x00"
        rows.append(b"\x00" + bytes(row))

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data +
                struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))
    with open(f"{out}/maze{n}.png", "wb") as f:
        f.write(png)
    with open(f"{out}/maze{n}.yaml", "w") as f:
        f.write(f"""# A {n} x {n} serpentine maze, one squad from the bottom corridor to the top one.
name: maze{n}
seed: 1
steps: 10
map:
  cell_size: 1.0
  image: maze{n}.png
  legend: {{'#000000': wall, '#ffffff': open}}
crowds:
  - name: infantry
    separation_radius: 0.8
    max_speed: 3
    max_force: 12
squads:
  - {{crowd: infantry, count: 3, formation: column, spacing: 1.5, start: [12, 2.5], goal: [{n - 16}, {n - 1.5}], speed: 1.5}}
""")


if __name__ == "__main__":
    main()
