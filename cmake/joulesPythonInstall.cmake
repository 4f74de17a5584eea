# Installs the Python package (cmake/joulesPython.cmake) into the prefix's
# Python path, chosen here because only now is --prefix known:
#   /usr          lib/python3/dist-packages        (Debian's own packages' place)
#   /usr/local    lib/pythonX.Y/dist-packages      (on Debian's sys.path)
#   anything else lib/pythonX.Y/site-packages      (~/.local: the user site,
#                 on sys.path; elsewhere PYTHONPATH=PREFIX/lib/pythonX.Y/site-packages)
# or JOULES_PYTHON_INSTALL_DIR (relative to the prefix) when set.
if(JOULES_PYTHON_INSTALL_DIR)
  set(dir "${JOULES_PYTHON_INSTALL_DIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(dir "lib/python3/dist-packages")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr/local")
  set(dir "lib/python${JOULES_PYTHON_VERSION}/dist-packages")
else()
  set(dir "lib/python${JOULES_PYTHON_VERSION}/site-packages")
endif()
if(IS_ABSOLUTE "${dir}")
  set(dest "${dir}")
else()
  set(dest "${CMAKE_INSTALL_PREFIX}/${dir}")
endif()
file(INSTALL "${JOULES_PYTHON_DIR}/joules" DESTINATION "$ENV{DESTDIR}${dest}"
  FILES_MATCHING PATTERN "*.py" PATTERN "*.so" PATTERN "__pycache__" EXCLUDE)
message(STATUS "joules: the Python package is in ${dest} (import joules; PYTHONPATH=${dest} where that is not on sys.path)")
