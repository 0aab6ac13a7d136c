# The scaling benchmark's smoke test (scripts/scaling --quick, docs/scaling.md):
# adr2d 120x120, tf 1, at P = 1, 2 and an oversubscribed P = 3, without the
# CVODE reference. tests/check_scaling.py runs it and checks that it exits 0
# and that its CSV has every column and one completed row per P (and that the
# PNG is a PNG). The speed figures are not judged.
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
add_test(NAME scaling.quick
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_scaling.py
          --python ${QMOL_PYTHON} --script ${PROJECT_SOURCE_DIR}/scripts/scaling
          --ranks 1,2 --oversubscribed 3 --n 14400 --
          --quick --ranks 1,2 --oversubscribed 3 --no-ref
          --qmol $<TARGET_FILE:qmol> --mpirun "${QMOL_MPIEXEC_STRING}"
          --out ${CMAKE_CURRENT_BINARY_DIR}/scaling-scratch --timeout 120)
set_tests_properties(scaling.quick PROPERTIES TIMEOUT 300 PROCESSORS 2
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
