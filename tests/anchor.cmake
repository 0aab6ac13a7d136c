# scripts/bench-engine's anchor, the hand-written SUNDIALS program of adr2d
# (scripts/anchor/adr2d_cvode.c), built as the script builds it (the system
# compiler, Debian's libsundials-dev) and checked against qmol's CVODE on
# adr2d 20 x 20 at tol 1e-8, with both its preconditioners and vectors
# (tests/anchor_test.py).
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
add_test(NAME bench.anchor
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/anchor_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/anchor-scratch)
set_tests_properties(bench.anchor PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS bench)
