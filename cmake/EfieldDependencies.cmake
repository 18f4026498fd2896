# Every dependency comes from a Debian package (see scripts/install_deps.sh).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)

# Debian's FFTW3 CMake config files are incomplete; pkg-config is reliable.
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3 fftw3f)
find_library(FFTW3_THREADS_LIB NAMES fftw3_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
find_library(FFTW3F_THREADS_LIB NAMES fftw3f_threads HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
add_library(efield_fftw3 INTERFACE)
target_link_libraries(efield_fftw3 INTERFACE ${FFTW3_THREADS_LIB} ${FFTW3F_THREADS_LIB} PkgConfig::FFTW3)

# stb (Debian's libstb-dev) reads and writes PNG for heat maps and the image-compression tool.
# scripts/install_deps.sh installs it; a machine without it builds everything else, and the PNG
# features then throw efield::Error saying so (EFIELD_HAS_STB=0).
find_path(STB_INCLUDE_DIR NAMES stb_image_write.h PATH_SUFFIXES stb)
if(STB_INCLUDE_DIR)
  set(EFIELD_HAS_STB 1)
else()
  set(EFIELD_HAS_STB 0)
  set(STB_INCLUDE_DIR "")
  message(WARNING "stb headers not found (libstb-dev): PNG output is disabled")
endif()

# The tests: GoogleTest, and Eigen for their dense float64 references (tests/reference; the
# library itself does not use Eigen).
if(EFIELD_BUILD_TESTS)
  find_package(GTest REQUIRED)
  find_package(Eigen3 3.3 REQUIRED NO_MODULE)
endif()

# The benchmarks and tools in bench_ispd/: command lines (CLI11) and JSON (nlohmann-json), both
# header-only with their own CMake configs (Debian's libcli11-dev, nlohmann-json3-dev).
if(EFIELD_BUILD_BENCH)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(nlohmann_json 3 CONFIG REQUIRED)
endif()
