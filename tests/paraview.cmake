# ParaView opens the XDMF sidecars (tests/paraview_test.py, under pvpython
# and Xvfb): heat1d, heat2d, heat3d, diurnal (2 components), heat2d on 2
# ranks and diurnal on 3, each with the reader OpenDataFile picks
# (Xdmf3ReaderS), Xdmf3ReaderT and the legacy XDMFReader: times, arrays,
# mesh and values against the HDF5 file (tests/paraview_expect.py, h5py),
# and a PNG of the last sample that must not be grey. About 7 s.
#
# Registered only when pvpython and xvfb-run are installed: Debian's
# python3-paraview, paraview, xvfb and xauth, 800 MB installed, which
# scripts/deps installs only when asked (QMOL_CI_EXTRAS=paraview, as
# .ci/run does); scripts/test says when the test was left out.
string(REPLACE ";" " " QMOL_MPIEXEC_STRING "${QMOL_MPIEXEC}")
find_program(QMOL_PVPYTHON NAMES pvpython)
find_program(QMOL_XVFB_RUN NAMES xvfb-run)
if(NOT QMOL_PVPYTHON OR NOT QMOL_XVFB_RUN)
  message(STATUS "pvpython or xvfb-run not found: test paraview.readers not registered")
else()
  # -noreset: Xvfb resets when its last client disconnects and drops a
  # connection made meanwhile (ECONNRESET: pvpython aborts with "bad X server
  # connection", 1 run in 5 on a busy machine, as ParaView opens, closes and
  # reopens the display). --no-mpi: pvpython as an MPI singleton would break
  # the mpiexec it runs.
  add_test(NAME paraview.readers
    COMMAND ${QMOL_XVFB_RUN} -a -s "-screen 0 1024x768x24 -noreset" ${QMOL_PVPYTHON} --no-mpi
            ${CMAKE_CURRENT_SOURCE_DIR}/paraview_test.py
            --qmol $<TARGET_FILE:qmol> --mpiexec "${QMOL_MPIEXEC_STRING}"
            --python ${QMOL_PYTHON} --scratch ${CMAKE_CURRENT_BINARY_DIR}/paraview-scratch)
  set_tests_properties(paraview.readers PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS paraview)
endif()
