# The libraries joules links, found one way for the build and for a user's
# find_package(joules): this file is included by the top CMakeLists.txt and,
# installed beside joulesConfig.cmake, by that config file. Each dependency
# ends up as one imported target with a fixed name, whatever found it (the
# library's own CMake package, CMake's Find module, or pkg-config), so the
# exported joules targets name only targets this file recreates for the
# consumer:
#   jansson::jansson                public: joules' headers use json_t
#   hdf5::hdf5  GSL::gsl  zstd::libzstd_shared  libdeflate::libdeflate_shared
#   ZLIB::ZLIB  SQLite::SQLite3  Threads::Threads
#                                   private: needed to link the static library
# In the build a missing library is an error (find_package REQUIRED); in the
# config file it is find_dependency, which makes find_package(joules) fail
# with the name of what is missing. JOULES_DEPS_PUBLIC_ONLY (set by the config
# file of a shared build) looks for the public ones only.

if(JOULES_FIND_DEPENDENCY)
  include(CMakeFindDependencyMacro)
  macro(joules_dependency)
    find_dependency(${ARGN})
  endmacro()
else()
  macro(joules_dependency)
    find_package(${ARGN} REQUIRED)
  endmacro()
endif()

# A library by its own CMake package (target TARGET) or else by pkg-config
# (module PC_NAME), as TARGET either way.
macro(joules_config_or_pkgconfig package target pc_name)
  if(NOT TARGET ${target})
    find_package(${package} CONFIG QUIET)
  endif()
  if(NOT TARGET ${target})
    joules_dependency(PkgConfig)
    string(MAKE_C_IDENTIFIER "JOULES_PC_${pc_name}" _joules_pc)
    if(JOULES_FIND_DEPENDENCY)
      pkg_check_modules(${_joules_pc} QUIET IMPORTED_TARGET ${pc_name})
      if(NOT ${_joules_pc}_FOUND)
        set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
            "${CMAKE_FIND_PACKAGE_NAME} could not be found because dependency ${pc_name} (pkg-config) could not be found.")
        set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
        return()
      endif()
    else()
      pkg_check_modules(${_joules_pc} REQUIRED IMPORTED_TARGET ${pc_name})
    endif()
    add_library(${target} INTERFACE IMPORTED)
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::${_joules_pc})
  endif()
endmacro()

joules_config_or_pkgconfig(jansson jansson::jansson jansson)

if(NOT JOULES_DEPS_PUBLIC_ONLY)
  if(NOT TARGET hdf5::hdf5)
    joules_dependency(HDF5 COMPONENTS C)
  endif()
  if(NOT TARGET hdf5::hdf5)
    # FindHDF5 before CMake 3.19 sets variables only
    add_library(hdf5::hdf5 INTERFACE IMPORTED)
    set_target_properties(hdf5::hdf5 PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${HDF5_INCLUDE_DIRS}"
      INTERFACE_COMPILE_DEFINITIONS "${HDF5_DEFINITIONS}"
      INTERFACE_LINK_LIBRARIES "${HDF5_C_LIBRARIES}")
  endif()
  if(NOT TARGET GSL::gsl)
    joules_dependency(GSL)
  endif()
  if(NOT TARGET Threads::Threads)
    joules_dependency(Threads)
  endif()
  joules_config_or_pkgconfig(zstd zstd::libzstd_shared libzstd)
  # libdeflate decodes deflate (zlib) chunks 2-3x faster than the zlib inside
  # HDF5's filter: the reader decodes chunks itself (src/trace/chunk_read.c).
  joules_config_or_pkgconfig(libdeflate libdeflate::libdeflate_shared libdeflate)
  # zlib streams gzip files (a profiler's .json.gz: src/import/kineto.c)
  if(NOT TARGET ZLIB::ZLIB)
    joules_dependency(ZLIB)
  endif()
  # SQLite reads Nsight Systems exports (src/import/nsys.c)
  joules_config_or_pkgconfig(SQLite3 SQLite::SQLite3 sqlite3)
endif()
