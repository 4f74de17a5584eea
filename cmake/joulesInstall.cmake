# What `cmake --install build [--prefix P]` puts where:
#   bin/joules                          the command-line tool
#   lib/libjoules.a (or .so)            the library (PIC; exported API only when shared)
#   include/joules/*.h                  the public headers, version.h generated
#   lib/cmake/joules/                   joulesConfig.cmake, -ConfigVersion, the targets, joulesDependencies.cmake
#   lib/pkgconfig/joules.pc             for pkg-config (Requires.private, Libs.private)
#   share/man/man1/joules.1, joules-<command>.1   generated from --help
#   share/doc/joules/                   docs/ and README.md
#   share/doc/joules/examples/          the tour's inputs (budgets, grid-intensity series)
#   share/joules/models, notebooks-export   data the analysis reads
install(TARGETS joules joules_cli EXPORT joulesTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/joules DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/joules/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/joules)
install(FILES models/gpus.json models/models.json DESTINATION ${CMAKE_INSTALL_DATADIR}/joules/models)
install(DIRECTORY notebooks-export/ DESTINATION ${CMAKE_INSTALL_DATADIR}/joules/notebooks-export
  FILES_MATCHING PATTERN "*.ipynb" PATTERN "README.md")
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the files the README's tour names (tests/account/data/*): a tour run from
# the installed documents finds them in examples/
install(FILES tests/account/data/budgets.json tests/account/data/electricitymaps-hourly.csv
  tests/account/data/watttime-moer.csv tests/account/data/constant-hourly.csv
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# CMake package. The exported targets name only joules::joules, joules::joules_cli
# and the dependency targets joulesDependencies.cmake recreates.
include(CMakePackageConfigHelpers)
set(JOULES_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/joules)
install(EXPORT joulesTargets NAMESPACE joules:: DESTINATION ${JOULES_CMAKE_DIR})
if(BUILD_SHARED_LIBS)
  set(JOULES_SHARED_BOOL ON)
else()
  set(JOULES_SHARED_BOOL OFF)
endif()
configure_package_config_file(cmake/joulesConfig.cmake.in ${PROJECT_BINARY_DIR}/joulesConfig.cmake
  INSTALL_DESTINATION ${JOULES_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same major.minor matches
write_basic_package_version_file(${PROJECT_BINARY_DIR}/joulesConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/joulesConfig.cmake ${PROJECT_BINARY_DIR}/joulesConfigVersion.cmake
  cmake/joulesDependencies.cmake DESTINATION ${JOULES_CMAKE_DIR})

# pkg-config. prefix is found from the .pc file's own place, so the file is
# right wherever the tree is installed. A static libjoules needs its private
# dependencies at link time: `pkg-config --static --libs joules`.
file(RELATIVE_PATH JOULES_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" JOULES_PC_TO_PREFIX "${JOULES_PC_TO_PREFIX}")
configure_file(cmake/joules.pc.in ${PROJECT_BINARY_DIR}/joules.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/joules.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Manual pages: joules(1) and joules-<command>(1), written from the text
# `joules --help` and `joules <command> --help` print (cmake/help2roff.sh),
# so a page never says something the tool's help does not.
set(JOULES_MAN_DIR ${PROJECT_BINARY_DIR}/man)
file(GLOB JOULES_CLI_HELP_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cli/*.c ${PROJECT_SOURCE_DIR}/src/cli/*.h)
add_custom_command(OUTPUT ${JOULES_MAN_DIR}/man.stamp
  COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/help2roff.sh $<TARGET_FILE:joules_cli> ${JOULES_MAN_DIR}
          ${PROJECT_VERSION} ${CMAKE_INSTALL_FULL_DOCDIR}
  COMMAND ${CMAKE_COMMAND} -E touch ${JOULES_MAN_DIR}/man.stamp
  DEPENDS joules_cli ${PROJECT_SOURCE_DIR}/cmake/help2roff.sh ${JOULES_CLI_HELP_SOURCES}
  COMMENT "Manual pages from joules --help")
add_custom_target(joules_man ALL DEPENDS ${JOULES_MAN_DIR}/man.stamp)
install(DIRECTORY ${JOULES_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
  FILES_MATCHING PATTERN "*.1")
