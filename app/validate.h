/* `throng validate`: the model against published experiments (docs/validation.md), and the
 * published measurements it compares with, one table per source. */
#ifndef TH_APP_VALIDATE_H
#define TH_APP_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

/** Run the cases `argv` selects and print the table; returns the exit code. */
int th_cmd_validate(int argc, char **argv);

/** One published value: y over [x0, x1] (a density bin) or at x0 = x1 (a width). A source with
 *  several runs at the same x has one row per run (or the least and the greatest of them, where
 *  only those were published). */
typedef struct th_val_row {
    double x0, x1, y;
} th_val_row;

/** A source's table: the numbers as published, their citation and where they were read. */
typedef struct th_val_table {
    const char *id;       /* short name, the first column of tests/data/validation_published.csv */
    const char *label;    /* as the table prints it: "Kretz 2006" */
    const char *citation; /* the full citation */
    const char *provenance; /* TEXT, TABLE, FIG-DIGITISED or DATA-DERIVED */
    const char *origin;     /* where the numbers were read or computed from */
    const char *x_what;     /* the x quantity and unit: "b [m]", "rho [1/m2]" */
    const char *y_what;     /* the y quantity and unit: "J [1/s]", "v [m/s]", "Js [1/(m s)]" */
    const th_val_row *rows;
    size_t n;
} th_val_table;

/** Every table, in the order docs/validation.md lists them. */
extern const th_val_table *const th_val_tables[];
extern const size_t th_val_table_count;

/** The table called `id`, or NULL. */
const th_val_table *th_val_find(const char *id);

/** The source's least and greatest value at x (rows at single x values, sorted by x): at a
 *  published x the least and greatest of its rows there, between two the straight line between
 *  their least and between their greatest. False when x lies outside the published x values (no
 *  extrapolation). `exact` (may be NULL) says whether x was one of them. */
bool th_val_range_at(const th_val_table *t, double x, double *lo, double *hi, bool *exact);

/** The row whose bin [x0, x1) holds x (binned tables); NULL when none does. */
const th_val_row *th_val_bin(const th_val_table *t, double x);

/** The greatest y of the table (NaN for an empty one). */
double th_val_max(const th_val_table *t);

#endif
