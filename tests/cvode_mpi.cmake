# CVODE on 2 ranks through the qmol command: a run whose file tests/check_h5.py
# then reads (layout, /partition, per-rank stats adding up to the totals),
# and the refusal of the direct linear solvers (exit 2, one message).
set(QMOL_CVODE_MPI2_FILE ${CMAKE_CURRENT_BINARY_DIR}/cvode_mpi2.h5)
add_test(NAME cvode.mpi2.run
  COMMAND ${QMOL_MPIEXEC} -n 2 $<TARGET_FILE:qmol> run --problem heat2d --set nx=30 --set ny=30
          --method cvode --samples 3 --output ${QMOL_CVODE_MPI2_FILE} --overwrite --quiet)
set_tests_properties(cvode.mpi2.run PROPERTIES TIMEOUT 300 PROCESSORS 2
  FIXTURES_SETUP cvode_mpi2_file)
add_test(NAME cvode.mpi2.python
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5.py ${QMOL_CVODE_MPI2_FILE}
          --n 900 --samples 3 --t0 0 --tf 0.1 --ranks 2 --partition)
set_tests_properties(cvode.mpi2.python PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED cvode_mpi2_file)

foreach(ls klu band)
  add_test(NAME cvode.mpi2.refuse_${ls}
    COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/support/expect_exit.py 2
            "--linsol ${ls}: needs all states on one rank; on 2 ranks use spgmr"
            -- ${QMOL_MPIEXEC} -n 2 $<TARGET_FILE:qmol> run --problem heat2d --method cvode
            --linsol ${ls} --output ${CMAKE_CURRENT_BINARY_DIR}/cvode_refused.h5 --overwrite)
  set_tests_properties(cvode.mpi2.refuse_${ls} PROPERTIES TIMEOUT 120 PROCESSORS 2)
endforeach()
