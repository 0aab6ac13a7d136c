# Finds qmol's dependencies (all Debian packages) and gathers them in the
# interface target qmol::deps. Each failure names the Debian package to install.

find_package(MPI COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(FATAL_ERROR "MPI not found: install the Debian packages libopenmpi-dev and openmpi-bin")
endif()

find_package(OpenMP COMPONENTS C)
if(NOT OpenMP_C_FOUND)
  message(FATAL_ERROR "OpenMP not found: install gcc (libgomp) from Debian")
endif()

find_package(SUNDIALS 6.4 CONFIG QUIET)
if(NOT SUNDIALS_FOUND)
  message(FATAL_ERROR "SUNDIALS >= 6.4 (CMake config) not found: install the Debian package libsundials-dev")
endif()

find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package pkg-config")
endif()

pkg_check_modules(HDF5P QUIET IMPORTED_TARGET hdf5-openmpi)
if(NOT HDF5P_FOUND)
  message(FATAL_ERROR "parallel HDF5 not found: install the Debian package libhdf5-openmpi-dev")
endif()

pkg_check_modules(INIH QUIET IMPORTED_TARGET inih)
if(NOT INIH_FOUND)
  message(FATAL_ERROR "inih not found: install the Debian package libinih-dev")
endif()

find_package(METIS)
if(NOT METIS_FOUND)
  message(FATAL_ERROR "METIS 5 not found: install the Debian package libmetis-dev")
endif()

add_library(qmol_deps INTERFACE)
add_library(qmol::deps ALIAS qmol_deps)
target_link_libraries(qmol_deps INTERFACE
  MPI::MPI_C OpenMP::OpenMP_C
  SUNDIALS::cvode_shared SUNDIALS::nvecparallel_shared SUNDIALS::nvecserial_shared
  SUNDIALS::nvecopenmp_shared SUNDIALS::nvecmpiplusx_shared
  SUNDIALS::sunlinsolklu_shared SUNDIALS::sunmatrixsparse_shared
  SUNDIALS::sunlinsolband_shared SUNDIALS::sunmatrixband_shared
  SUNDIALS::sunlinsolspgmr_shared
  PkgConfig::HDF5P PkgConfig::INIH METIS::METIS ${CMAKE_DL_LIBS} m)
