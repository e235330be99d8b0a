/*
 * meshgen_verify over the tables of tests/e2e/verify_p8.yaml, for
 * tests/tools/verify_check.py: it prints the return code and the report on
 * one line, so that the test can hold the program's first difference to
 * the one `meshgen verify` reports first for the same machine
 * (HWLOC_XMLFILE) — the two share one comparison.
 */
#include <stdio.h>

#include <meshgen/meshgen.h>

#include "verify_p8_mesh.h"

int main(void)
{
    char report[512];
    int rc = meshgen_verify(&verify_p8_mesh, -1, report, sizeof report);

    printf("%d %s\n", rc, report);
    return 0;
}
