# Finds METIS 5 (Debian: libmetis-dev). Defines METIS::METIS.
find_path(METIS_INCLUDE_DIR metis.h PATH_SUFFIXES metis)
find_library(METIS_LIBRARY metis)
if(METIS_INCLUDE_DIR)
  file(STRINGS ${METIS_INCLUDE_DIR}/metis.h _metis_major REGEX "#define METIS_VER_MAJOR")
  string(REGEX MATCH "[0-9]+" METIS_VERSION_MAJOR "${_metis_major}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR METIS_VERSION_MAJOR)
if(METIS_FOUND AND NOT METIS_VERSION_MAJOR EQUAL 5)
  message(FATAL_ERROR "METIS ${METIS_VERSION_MAJOR} found, METIS 5 needed: install the Debian package libmetis-dev")
endif()
if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES
    IMPORTED_LOCATION ${METIS_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${METIS_INCLUDE_DIR})
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
