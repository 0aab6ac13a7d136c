# HDF5 output: test_h5out leaves a result file (QMOL_H5OUT_KEEP), which
# tests/check_h5.py then checks with h5py, as an independent reader.
set(QMOL_H5OUT_KEEP_FILE ${CMAKE_CURRENT_BINARY_DIR}/h5out_keep.h5)
add_test(NAME h5out.produce COMMAND test_h5out)
set_tests_properties(h5out.produce PROPERTIES TIMEOUT 300
  FIXTURES_SETUP h5out_file
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;QMOL_H5OUT_KEEP=${QMOL_H5OUT_KEEP_FILE}")
add_test(NAME h5out.python
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5.py ${QMOL_H5OUT_KEEP_FILE}
          --n 7 --samples 3 --t0 0 --tf 2 --ranks 1 --partition)
set_tests_properties(h5out.python PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED h5out_file)

# The same tests on 2 ranks: each rank writes its block of every row (n = 7
# splits 3 + 4); the file it keeps is checked by h5py as well.
set(QMOL_H5OUT_KEEP2_FILE ${CMAKE_CURRENT_BINARY_DIR}/h5out_keep2.h5)
add_test(NAME h5out.mpi2 COMMAND ${QMOL_MPIEXEC} -n 2 $<TARGET_FILE:test_h5out>)
set_tests_properties(h5out.mpi2 PROPERTIES TIMEOUT 300 PROCESSORS 2
  FIXTURES_SETUP h5out_file2
  ENVIRONMENT "QMOL_H5OUT_KEEP=${QMOL_H5OUT_KEEP2_FILE}")
add_test(NAME h5out.python2
  COMMAND ${QMOL_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5.py ${QMOL_H5OUT_KEEP2_FILE}
          --n 7 --samples 3 --t0 0 --tf 2 --ranks 2 --partition)
set_tests_properties(h5out.python2 PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED h5out_file2)
