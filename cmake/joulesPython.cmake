# The Python module (src/python/, docs/python.md): `import joules`, a C
# extension over the library (joules._joules) and the package around it.
#
# Which Python: JOULES_PYTHON, by default Debian's /usr/bin/python3 — the
# interpreter python3-dev, python3-numpy and python3-pandas install into
# (.ci/install-deps). A python3 that comes first on PATH (pyenv, conda, a
# venv) is not used unless named: -DJOULES_PYTHON=/path/to/python3 builds
# for that one (it needs its own headers and NumPy), -DJOULES_PYTHON=OFF
# builds no module. The module is built when that interpreter has its
# development headers (Python.h) and NumPy; otherwise configure says why
# and goes on without it.
set(JOULES_PYTHON_DEFAULT "")
if(EXISTS /usr/bin/python3)
  set(JOULES_PYTHON_DEFAULT /usr/bin/python3)
endif()
set(JOULES_PYTHON "${JOULES_PYTHON_DEFAULT}" CACHE STRING
  "Python interpreter to build the joules module for (OFF: none; default /usr/bin/python3)")
# Where `cmake --install` puts the package, relative to the install prefix;
# empty (default): chosen at install time from the prefix (cmake/joulesPythonInstall.cmake).
set(JOULES_PYTHON_INSTALL_DIR "" CACHE STRING
  "Install folder of the Python package relative to the prefix (default: by prefix)")

set(JOULES_HAVE_PYTHON OFF)
if(JOULES_PYTHON AND NOT JOULES_PYTHON STREQUAL "OFF")
  execute_process(COMMAND ${JOULES_PYTHON} -c
    "import sysconfig, sys; import numpy\nprint(sysconfig.get_paths()['include'])\nprint(numpy.get_include())\nprint(sysconfig.get_config_var('EXT_SUFFIX'))\nprint('%d.%d' % sys.version_info[:2])"
    RESULT_VARIABLE py_rc OUTPUT_VARIABLE py_out ERROR_VARIABLE py_err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(py_rc EQUAL 0)
    string(REPLACE "\n" ";" py_lines "${py_out}")
    list(GET py_lines 0 JOULES_PYTHON_INCLUDE)
    list(GET py_lines 1 JOULES_NUMPY_INCLUDE)
    list(GET py_lines 2 JOULES_PYTHON_EXT_SUFFIX)
    list(GET py_lines 3 JOULES_PYTHON_VERSION)
    if(EXISTS ${JOULES_PYTHON_INCLUDE}/Python.h AND EXISTS ${JOULES_NUMPY_INCLUDE}/numpy/arrayobject.h)
      set(JOULES_HAVE_PYTHON ON)
    else()
      message(STATUS "joules: no Python module: ${JOULES_PYTHON} has no Python.h in ${JOULES_PYTHON_INCLUDE} (Debian: python3-dev)")
    endif()
  else()
    message(STATUS "joules: no Python module: ${JOULES_PYTHON} cannot import numpy (Debian: python3-numpy): ${py_err}")
  endif()
endif()

if(JOULES_HAVE_PYTHON)
  message(STATUS "joules: the Python module for ${JOULES_PYTHON} (Python ${JOULES_PYTHON_VERSION}, ${JOULES_PYTHON_EXT_SUFFIX})")
  set(JOULES_PYTHON_DIR ${PROJECT_BINARY_DIR}/python)
  file(GLOB JOULES_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/python/*.c)
  add_library(joules_python MODULE ${JOULES_PYTHON_SOURCES})
  set_target_properties(joules_python PROPERTIES OUTPUT_NAME _joules PREFIX ""
    SUFFIX ${JOULES_PYTHON_EXT_SUFFIX} C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${JOULES_PYTHON_DIR}/joules)
  target_include_directories(joules_python SYSTEM PRIVATE ${JOULES_PYTHON_INCLUDE} ${JOULES_NUMPY_INCLUDE})
  target_compile_options(joules_python PRIVATE ${JOULES_WARNINGS} -Wno-missing-field-initializers
    -Wno-cast-function-type)
  # the library's objects linked in (position-independent, hidden but for
  # the public API: libjoules.a, or in a -DBUILD_SHARED_LIBS=ON build the
  # static copy of the same objects): the module needs no libjoules.so at
  # run time, wherever the prefix puts it; the interpreter's own symbols are
  # resolved when it loads the module, never linked
  target_link_libraries(joules_python PRIVATE joules_internal)
  # the package's Python files beside the extension, and its docstrings
  # from docs/python.md (help(joules.summarize) says what the page says)
  file(GLOB JOULES_PYTHON_PY CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/python/joules/*.py)
  set(py_outputs "")
  foreach(f ${JOULES_PYTHON_PY})
    get_filename_component(n ${f} NAME)
    add_custom_command(OUTPUT ${JOULES_PYTHON_DIR}/joules/${n}
      COMMAND ${CMAKE_COMMAND} -E copy ${f} ${JOULES_PYTHON_DIR}/joules/${n} DEPENDS ${f})
    list(APPEND py_outputs ${JOULES_PYTHON_DIR}/joules/${n})
  endforeach()
  add_custom_command(OUTPUT ${JOULES_PYTHON_DIR}/joules/_docs.py
    COMMAND ${JOULES_PYTHON} ${PROJECT_SOURCE_DIR}/src/python/make_docs.py
            ${PROJECT_SOURCE_DIR}/docs/python.md ${JOULES_PYTHON_DIR}/joules/_docs.py
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/python.md ${PROJECT_SOURCE_DIR}/src/python/make_docs.py
    COMMENT "joules/_docs.py from docs/python.md")
  list(APPEND py_outputs ${JOULES_PYTHON_DIR}/joules/_docs.py)
  add_custom_target(joules_python_files ALL DEPENDS ${py_outputs})
  add_dependencies(joules_python joules_python_files)

  # cmake --install: into the prefix's Python path (chosen at install time,
  # when --prefix is known: cmake/joulesPythonInstall.cmake says how)
  install(CODE "set(JOULES_PYTHON_DIR \"${JOULES_PYTHON_DIR}\")
    set(JOULES_PYTHON_VERSION \"${JOULES_PYTHON_VERSION}\")
    set(JOULES_PYTHON_INSTALL_DIR \"${JOULES_PYTHON_INSTALL_DIR}\")
")
  install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/joulesPythonInstall.cmake)
endif()
