# The accuracy matrix's CI subset (scripts/accuracy-matrix --quick): every
# method on heat1d N=100 at tol 1e-3 on 1, 2 and 3 ranks, and cells of every
# other problem family on 1 and 2 ranks, against exact or tight CVODE
# solutions. Fails when a cell breaks e_rr <= C tol (C per method family) or
# e_rr(P) <= 1.5 e_rr(1) + tol/10 (methods with a BDF block: on their
# +jacobi runs), or a run fails; the report is
# accuracy-quick.md in the build's tests directory.
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
add_test(NAME accuracy.matrix_quick
  COMMAND ${QMOL_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/accuracy-matrix --quick --jobs 2
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/accuracy-scratch --timeout 240
          --out ${CMAKE_CURRENT_BINARY_DIR}/accuracy-quick.md)
set_tests_properties(accuracy.matrix_quick PROPERTIES TIMEOUT 600 PROCESSORS 2
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
