# Every dependency comes from a Debian package (see scripts/install_deps.sh).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)

# Debian's FFTW3 CMake config files are incomplete; pkg-config is reliable.
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3 fftw3f)
find_library(FFTW3_THREADS_LIB NAMES fftw3_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
find_library(FFTW3F_THREADS_LIB NAMES fftw3f_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
add_library(efield_fftw3 INTERFACE)
target_link_libraries(efield_fftw3 INTERFACE ${FFTW3_THREADS_LIB} ${FFTW3F_THREADS_LIB} PkgConfig::FFTW3)

# stb (single-header PNG writer/reader) for heat maps and the image-compression tool.
find_path(STB_INCLUDE_DIR NAMES stb_image_write.h PATH_SUFFIXES stb)
if(NOT STB_INCLUDE_DIR)
  message(FATAL_ERROR "stb headers not found: install libstb-dev")
endif()

if(EFIELD_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
