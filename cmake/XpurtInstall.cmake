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

# ISPCRT's package (find_package(ispcrt), ispcrt::ispcrt): libxpurt_ispcrt and ISPCRT's
# headers in include/ispcrt, as ISPCRT installs them. Its version is that of the ISPCRT API it
# provides (ISPC 1.32's), so that projects asking for an ISPCRT 1.x find it.
set(XPURT_ISPCRT_API_VERSION 1.32.0)
install(TARGETS xpurt_ispcrt EXPORT ispcrtTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ispcrt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(ISPCRT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ispcrt)
set(ISPCRT_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/ispcrt)
install(EXPORT ispcrtTargets NAMESPACE ispcrt:: DESTINATION ${ISPCRT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ispcrtConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ispcrtConfig.cmake
                              INSTALL_DESTINATION ${ISPCRT_CMAKE_DIR}
                              PATH_VARS ISPCRT_INCLUDE_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ispcrtConfigVersion.cmake
                                 VERSION ${XPURT_ISPCRT_API_VERSION}
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ispcrtConfig.cmake ${PROJECT_BINARY_DIR}/ispcrtConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ispcrtKernels.cmake
        DESTINATION ${ISPCRT_CMAKE_DIR})

