# The Python extension efield._efield (python/): AUTO builds it when Python 3's development files
# and pybind11 are found, ON requires them, OFF skips it. Sets EFIELD_HAS_PYTHON.
#
# Which interpreter: Python3_EXECUTABLE when given; else the active virtual environment's; else
# Debian's /usr/bin/python3 (a pyenv or conda python3 earlier on PATH lacks the Debian packages the
# tests import). pybind11: its CMake config (Debian's pybind11-dev, or -Dpybind11_DIR=...), else
# the headers PyTorch ships in torch/include (pip's PyTorch wheels carry them). DLPack's header:
# Debian's libdlpack-dev, else PyTorch's ATen/dlpack.h.
string(TOUPPER "${EFIELD_PYTHON}" EFIELD_PYTHON)
if(NOT EFIELD_PYTHON MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "EFIELD_PYTHON must be AUTO, ON or OFF (got '${EFIELD_PYTHON}')")
endif()

set(EFIELD_HAS_PYTHON OFF)
if(EFIELD_PYTHON STREQUAL "OFF")
  message(STATUS "efield: Python extension disabled (EFIELD_PYTHON=OFF)")
  return()
endif()

function(efield_python_missing what)
  if(EFIELD_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "EFIELD_PYTHON=ON but ${what}")
  endif()
  message(STATUS "efield: Python extension OFF: ${what}")
endfunction()

if(NOT Python3_EXECUTABLE AND NOT DEFINED ENV{VIRTUAL_ENV} AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
if(NOT Python3_Development.Module_FOUND)
  efield_python_missing("Python 3 development files were not found (python3-dev)")
  return()
endif()

# PyTorch's include folder, asked of the interpreter once (empty without PyTorch).
execute_process(
  COMMAND ${Python3_EXECUTABLE} -c
          "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))"
  OUTPUT_VARIABLE EFIELD_TORCH_INCLUDE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET RESULT_VARIABLE torch_result)
if(NOT torch_result EQUAL 0)
  set(EFIELD_TORCH_INCLUDE_DIR "")
endif()

find_package(pybind11 2.6 CONFIG QUIET)
if(pybind11_FOUND)
  set(EFIELD_PYBIND11_TARGET pybind11::headers)
else()
  find_path(EFIELD_PYBIND11_INCLUDE_DIR NAMES pybind11/pybind11.h HINTS ${EFIELD_TORCH_INCLUDE_DIR})
  if(NOT EFIELD_PYBIND11_INCLUDE_DIR)
    efield_python_missing("pybind11 was found neither as a CMake package (pybind11-dev, -Dpybind11_DIR) nor in torch/include")
    return()
  endif()
  add_library(efield_pybind11_headers INTERFACE)
  target_include_directories(efield_pybind11_headers INTERFACE ${EFIELD_PYBIND11_INCLUDE_DIR})
  set(EFIELD_PYBIND11_TARGET efield_pybind11_headers)
endif()

find_path(EFIELD_DLPACK_INCLUDE_DIR NAMES dlpack/dlpack.h)
if(NOT EFIELD_DLPACK_INCLUDE_DIR)
  find_path(EFIELD_DLPACK_INCLUDE_DIR NAMES ATen/dlpack.h HINTS ${EFIELD_TORCH_INCLUDE_DIR})
endif()
if(NOT EFIELD_DLPACK_INCLUDE_DIR)
  efield_python_missing("dlpack/dlpack.h was not found (libdlpack-dev) and PyTorch's ATen/dlpack.h neither")
  return()
endif()

set(EFIELD_HAS_PYTHON ON)
# scripts/quickstart.sh runs the Python tests with this interpreter.
set(EFIELD_PYTHON_EXECUTABLE "${Python3_EXECUTABLE}" CACHE INTERNAL "The interpreter the extension is built for")
message(STATUS "efield: Python extension ON (${Python3_EXECUTABLE}, Python ${Python3_VERSION})")
