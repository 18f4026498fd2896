# install() rules and a CMake package, so that a placer does
#   find_package(efield REQUIRED)
#   target_link_libraries(placer PRIVATE efield::efield)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS efield EXPORT efieldTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/efield DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT efieldTargets NAMESPACE efield::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/efield)
configure_package_config_file(cmake/efieldConfig.cmake.in
        ${CMAKE_CURRENT_BINARY_DIR}/efieldConfig.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/efield)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/efieldConfigVersion.cmake
        COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/efieldConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/efieldConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/efield)
