"""What of the C API Python reaches.

Every function declared in the public headers (include/throng/*.h) is either called by the
extension (python/throng/_throng.c) or listed in NOT_BOUND below with the reason Python leaves
it to C. A function added to a header without a binding or a reason fails this test.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
HEADERS = os.path.join(HERE, "..", "..", "include", "throng")
EXTENSION = os.path.join(HERE, "..", "throng", "_throng.c")

_VEC2 = "2D vector math: numpy does it on whole arrays"
_VIEWER = "the SDL viewer and its drawing helpers: a window or pixels, not a Python object (throng view)"
_HOOK = "a process-wide C hook (allocator, assertions, task system) that a Python callback cannot serve safely"
_CLOCK = "the real-time frame clock of a C game loop: Python hosts call step(n) with their own timing"
_DIST = "MPI ranks (throng/dist.h): a world split over processes is built by the mpirun command line"
_OLD = "an older name kept for one release; Python calls the th_world_get_* reader it forwards to"
_EVENT = ("schedules an event for the current step: World's method of the same name with "
          "at=None schedules that event through th_world_schedule")

#: C functions Python deliberately does not bind, each with its reason.
NOT_BOUND = {
    # vec2.h
    **{f: _VEC2 for f in ("th_v2_add", "th_v2_sub", "th_v2_scale", "th_v2_dot", "th_v2_cross",
                          "th_v2_len2", "th_v2_len", "th_v2_perp", "th_v2_lerp", "th_v2_norm",
                          "th_v2_clamp_len", "th_clampf")},
    # handle checks
    "th_agent_id_eq": "agent ids are Python ints, compared with ==",
    # viewer.h
    **{f: _VIEWER for f in ("th_view_default_opts", "th_view_run", "th_view_screenshot",
                            "th_view_render_pixels", "th_view_display_available",
                            "th_view_cell_color", "th_view_crowd_color", "th_view_get_layout",
                            "th_view_layout_to_screen", "th_view_world_to_screen",
                            "th_view_time_frames")},
    # hooks
    **{f: _HOOK for f in ("th_set_allocator", "th_set_assert_hook", "th_task_fn",
                          "th_enqueue_task_fn", "th_finish_task_fn", "th_assert_fn")},
    # clock.h
    **{f: _CLOCK for f in ("th_clock_make", "th_clock_advance", "th_clock_alpha")},
    # dist.h and the rank queries
    **{f: _DIST for f in ("th_world_rank", "th_world_ranks", "th_world_dist_stats",
                          "th_world_dist_check")},
    # older names
    **{f: _OLD for f in ("th_world_crowd", "th_world_measure_area", "th_world_measure_line",
                         "th_world_forage_info", "th_world_food_source", "th_world_stall_info",
                         "th_world_target_state", "th_world_squad_member")},
    "th_default_plan_def": "zero fields of th_plan_def take its defaults: Planner passes zeros for those not given",
    "th_text_escape": "Python strings print any character safely; names are returned as str",
    "th_version_number": "throng.version() and __version__ give the version as text",
    "th_error_code_message": "throng.Error.meaning gives it, from the table of error codes",
    # events for the current step: the same events through th_world_schedule
    **{f: _EVENT for f in ("th_world_destroy_bunker", "th_world_restore_bunker",
                           "th_world_break_walls", "th_world_block_cells", "th_world_open_cells",
                           "th_world_set_cost")},
}


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared_functions():
    """Every th_* function declared in the public headers: TH_API declarations, static
    inline definitions and function typedefs (the host's hooks)."""
    names = set()
    decl = re.compile(r"\b(?:TH_API|static\s+inline)\b[^;{]*?\b(th_\w+)\s*\(")
    typedef = re.compile(r"\btypedef\s+[^;]*?\b(th_\w+)\s*\(")
    for name in sorted(os.listdir(HEADERS)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(HEADERS, name)) as f:
            text = _strip_comments(f.read())
        names.update(decl.findall(text))
        names.update(typedef.findall(text))
    return names


def used_functions():
    with open(EXTENSION) as f:
        text = _strip_comments(f.read())
    return set(re.findall(r"\b(th_\w+)\b", text))


def test_the_header_scan_finds_the_api():
    found = declared_functions()
    # A few of every kind, so that a broken scan cannot pass the test below by finding nothing.
    for f in ("th_world_create", "th_world_add_level", "th_world_add_hazard", "th_v2_add",
              "th_planner_create", "th_view_run", "th_clock_make", "th_world_set_goal_planning",
              "th_agent_id_valid", "th_task_fn"):
        assert f in found, f
    assert len(found) > 200


def test_every_c_function_is_bound_or_excused():
    declared = declared_functions()
    used = used_functions()
    missing = sorted(f for f in declared if f not in used and f not in NOT_BOUND)
    assert not missing, ("C functions neither bound in python/throng/_throng.c nor listed in "
                         "NOT_BOUND with a reason: " + ", ".join(missing))


def test_the_not_bound_list_is_honest():
    declared = declared_functions()
    used = used_functions()
    stale = sorted(f for f in NOT_BOUND if f not in declared)
    assert not stale, "NOT_BOUND names functions no header declares: " + ", ".join(stale)
    bound = sorted(f for f in NOT_BOUND if f in used)
    assert not bound, "NOT_BOUND names functions the extension calls: " + ", ".join(bound)
    for f, why in NOT_BOUND.items():
        assert why and "\n" not in why, f
