# Output for tools. The XDMF sidecar of grid results (tests/check_xdmf.py): valid XML whose
# every dataset path exists in the HDF5 file with the shape it gives.
add_test(NAME xdmf.runs
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_xdmf.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/xdmf-scratch)
set_tests_properties(xdmf.runs PROPERTIES TIMEOUT 300 PROCESSORS 2)
# scripts/qmolpost: PNGs written, compare's numbers, errors (tests/qmolpost_test.py).
add_test(NAME post.qmolpost
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/qmolpost_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/post-scratch)
set_tests_properties(post.qmolpost PROPERTIES TIMEOUT 300 PROCESSORS 2)
# The tutorial: install, find_package(qmol), pkg-config, the Gray-Scott plugin
# on 2 ranks against CVODE, a plot; the second example (heat-neumann: rows
# that repeat a state, explicit_time) on 2 ranks against its exact solution
# (tests/tutorial_test.sh).
add_test(NAME tutorial.gray_scott
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tutorial_test.sh ${CMAKE_BINARY_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/tutorial-scratch "${QMOL_MPIEXEC_STRING}" gray-scott)
set_tests_properties(tutorial.gray_scott PROPERTIES TIMEOUT 300 PROCESSORS 2)
add_test(NAME tutorial.heat_neumann
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tutorial_test.sh ${CMAKE_BINARY_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/tutorial-heat-scratch "${QMOL_MPIEXEC_STRING}"
          heat-neumann)
set_tests_properties(tutorial.heat_neumann PROPERTIES TIMEOUT 300 PROCESSORS 2)
# An installed prefix moved elsewhere: pkg-config (normalized, then
# --define-prefix), qmol, qmolpost, find_package from the new place
# (tests/install_move_test.sh).
add_test(NAME install.moved
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_move_test.sh ${CMAKE_BINARY_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/install-move-scratch)
set_tests_properties(install.moved PROPERTIES TIMEOUT 300)
# Which samples and states a run writes (--sample-times, --output-states) and
# /fields, on 1 and 2 ranks (tests/output_select_test.py).
add_test(NAME output.select
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/output_select_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/output-scratch)
set_tests_properties(output.select PROPERTIES TIMEOUT 300 PROCESSORS 2)
# Checkpoints (tests/checkpoint_test.py): SIGKILL and restart on 1 and 2
# ranks, SIGTERM on 2 ranks, CVODE against the exact solution, a NaN on 2
# ranks, refused checkpoints (runs); QSS3, mLIQSS2 and BQSS resumed bit for
# bit and a blow-up that keeps its last checkpoint, small enough for the
# sanitizer build (small).
add_test(NAME checkpoint.runs
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_test.py --part runs
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/checkpoint-scratch)
set_tests_properties(checkpoint.runs PROPERTIES TIMEOUT 600 PROCESSORS 2)
add_test(NAME checkpoint.small
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_test.py --part small
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/checkpoint-scratch)
set_tests_properties(checkpoint.small PROPERTIES TIMEOUT 600)
# Runs that must not destroy each other's results (tests/data_safety_test.py):
# two runs on one output at once, a file appearing at the output's name,
# symbolic links at the working files; 1 and 2 ranks.
add_test(NAME data_safety.runs
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/data_safety_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/data-safety-scratch)
set_tests_properties(data_safety.runs PROPERTIES TIMEOUT 900 PROCESSORS 2)
# One-rank runs started at once without mpirun (tests/singleton_runs_test.py):
# isolated Open MPI singletons must not break each other's MPI-IO.
add_test(NAME data_safety.singletons
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/singleton_runs_test.py
          --qmol $<TARGET_FILE:qmol> --scratch ${CMAKE_CURRENT_BINARY_DIR}/singleton-scratch)
set_tests_properties(data_safety.singletons PROPERTIES TIMEOUT 300 PROCESSORS 2)
# The code's shape (issue 18): no function in src/, io/, comm/, partition/ or
# problems/ over 80 lines, src/driver/run.c under 300 (scripts/check-function-length).
add_test(NAME code.function_length
  COMMAND ${QMOL_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check-function-length)
