# Distributed runs end to end (tests/mpi_runs.py): each problem at P = 1..4
# ranks for LIQSS2, mLIQSS2, QSS2 and CVODE: completes, error within 1.5 x the P = 1
# error + tol/10, bit-identical on a repeated run.
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
foreach(problem heat2d heat3d adr2d)
  add_test(NAME mpi.runs.${problem}
    COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_runs.py ${problem}
            --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
            --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
  set_tests_properties(mpi.runs.${problem} PROPERTIES TIMEOUT 600 PROCESSORS 2)
endforeach()
# CVODE with SPGMR and each --precond (jacobi, block-jacobi, ilu) on 1 and
# 2 ranks: the same rule, and the file names the preconditioner.
add_test(NAME mpi.runs.heat2d-precond
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_runs.py heat2d
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch/precond
          --methods cvode-jacobi,cvode-block-jacobi,cvode-ilu --ranks 1,2)
set_tests_properties(mpi.runs.heat2d-precond PROPERTIES TIMEOUT 600 PROCESSORS 2)
# A front crossing a long-quiet rank boundary (see CASES in mpi_runs.py).
add_test(NAME mpi.runs.adr2d-front
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_runs.py adr2d-front
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch --methods liqss2 --ranks 1,2)
set_tests_properties(mpi.runs.adr2d-front PROPERTIES TIMEOUT 600 PROCESSORS 2)
# Strong diffusion coupling across the cuts (heat1d N = 100) at P = 1..3.
add_test(NAME mpi.runs.heat1d
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_runs.py heat1d
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch --methods liqss2,qss1,mliqss2
          --ranks 1,2,3)
set_tests_properties(mpi.runs.heat1d PROPERTIES TIMEOUT 600 PROCESSORS 2)
# The mixed method's windows on stiff kinetics (diurnal, --assign auto):
# accuracy rule and at most 2x the one-rank windows per rank.
add_test(NAME mpi.runs.diurnal-mixed
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_runs.py diurnal-mixed
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch --methods mixed --ranks 1,2,4)
set_tests_properties(mpi.runs.diurnal-mixed PROPERTIES TIMEOUT 600 PROCESSORS 2)
# Zero crossings on several ranks (CVODE, QSS, mixed): switching times
# against a tight one-rank run.
add_test(NAME mpi.runs.thermostat
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_discontinuity.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(mpi.runs.thermostat PROPERTIES TIMEOUT 600 PROCESSORS 2)
# The mixed method on 1, 2 and 4 ranks: accuracy rule, split, determinism.
add_test(NAME mpi.runs.mixed
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_mixed.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(mpi.runs.mixed PROPERTIES TIMEOUT 600 PROCESSORS 2)
# A fixed --window the coupling cannot take stops the run (exit 1); a short
# one keeps the accuracy rule.
add_test(NAME mpi.runs.fixed_window
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_fixed_window.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(mpi.runs.fixed_window PROPERTIES TIMEOUT 300 PROCESSORS 2)
# --method auto on 1 and 2 ranks: accuracy across its switches, honest
# counters, no fixed method map (tests/mpi_auto.py).
add_test(NAME mpi.runs.auto
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_auto.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(mpi.runs.auto PROPERTIES TIMEOUT 600 PROCESSORS 2)
# --cvode-norm max: every run within its tolerance on a moving front, on 1
# and 2 ranks and on the threaded vector (tests/cvode_norm_test.py).
add_test(NAME mpi.runs.cvode_norm
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cvode_norm_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(mpi.runs.cvode_norm PROPERTIES TIMEOUT 300 PROCESSORS 2)
# CVODE on 1, 2 and 3 threads writes the same bits: threaded ILU(0) slabs and
# vector sums (tests/cvode_threads_test.py).
add_test(NAME cvode.threads
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cvode_threads_test.py
          --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
          --scratch ${CMAKE_CURRENT_BINARY_DIR}/mpi-scratch)
set_tests_properties(cvode.threads PROPERTIES TIMEOUT 300 PROCESSORS 2)
