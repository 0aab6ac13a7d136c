# Rows that list a state more than once (tests/repeated_rows_test.py): a
# plugin with reflecting ends written as repeated states, nodes and cells,
# with and without its Jacobian, under CVODE, LIQSS2, mLIQSS2 and mixed on 1
# and 2 ranks, against the exact semi-discrete solution and against the same
# system listed without repeats.
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
add_test(NAME model.repeated_states
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/repeated_rows_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --source-dir ${PROJECT_SOURCE_DIR}
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/repeated-rows-scratch)
set_tests_properties(model.repeated_states PROPERTIES TIMEOUT 300 PROCESSORS 2
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
