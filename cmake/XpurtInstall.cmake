# The installable package: find_package(xpurt) then link xpurt::xpurt.
include(CMakePackageConfigHelpers)

install(TARGETS xpurt xpurt_kernel_headers EXPORT xpurtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS xpurt-jit-worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/xpurt)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xpurt ${PROJECT_SOURCE_DIR}/kernels/include/xpurt
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/XpurtNativeModule.cmake
              ${PROJECT_SOURCE_DIR}/cmake/XpurtSpirv.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/xpurt)

set(XPURT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xpurt)
install(EXPORT xpurtTargets NAMESPACE xpurt:: DESTINATION ${XPURT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/xpurtConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/xpurtConfig.cmake
                              INSTALL_DESTINATION ${XPURT_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xpurtConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xpurtConfig.cmake ${PROJECT_BINARY_DIR}/xpurtConfigVersion.cmake
        DESTINATION ${XPURT_CMAKE_DIR})
