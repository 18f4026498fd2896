# The C++ runtime of efield's shared objects (libefield, _efield, _torch_ops): the process's shared
# libstdc++, never a copy of it inside our libraries that other libraries can see.
#
# Why (docs/design.md, "One C++ runtime"): a toolchain that linked libstdc++ statically into our
# shared objects, exported, next to the system's libstdc++.so.6 that PyTorch uses, crashed
# `import torch` after efield and every error message of the compiled op.
#
# What this does:
# 1. Every shared object of ours links with --exclude-libs,ALL: no symbol of a static archive
#    (libstdc++.a, libcudart_static.a, ...) is exported, so none can interpose on another
#    library's, and whatever an archive contributes binds inside our object only.
# 2. When the compiler would embed libstdc++ in a shared object (a probe library tells), the
#    shared libstdc++.so.6 is linked explicitly ahead of the driver's archive, so that nothing is
#    taken from the archive: where it is at least as new as the compiler needs, and a probe linked
#    that way embeds nothing. EFIELD_SHARED_CXX_RUNTIME=OFF skips this step.
# Sets EFIELD_CXX_RUNTIME_LINK (what step 2 adds, empty when nothing is needed) and defines
# efield_use_shared_cxx_runtime(target).
set(EFIELD_SHARED_CXX_RUNTIME AUTO CACHE STRING
    "Link libstdc++.so.6 explicitly when the compiler would embed libstdc++ in shared objects: AUTO or OFF")
set(EFIELD_CXX_RUNTIME_LINK "")

function(efield_use_shared_cxx_runtime target)
  target_link_options(${target} PRIVATE LINKER:--exclude-libs,ALL)
  if(EFIELD_CXX_RUNTIME_LINK)
    target_link_libraries(${target} PRIVATE ${EFIELD_CXX_RUNTIME_LINK})
  endif()
endfunction()

# Builds a probe shared library with the compiler and the flags our shared objects get (plus
# `extra`); sets `out` to TRUE when it defines libstdc++'s own std::locale::~locale().
function(efield_probe_embedded_libstdcxx out extra)
  set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/efield_cxx_runtime_probe)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/probe.cpp
       "#include <sstream>\n#include <string>\nstd::string efield_probe(long v) { std::ostringstream s; s << v; return s.str(); }\n")
  separate_arguments(flags UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_SHARED_LINKER_FLAGS}")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} ${flags} -shared -fPIC ${dir}/probe.cpp -o ${dir}/probe.so ${extra}
                  RESULT_VARIABLE built OUTPUT_QUIET ERROR_QUIET)
  if(NOT built EQUAL 0)
    set(${out} "FAILED" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_NM} -D --defined-only ${dir}/probe.so OUTPUT_VARIABLE symbols ERROR_QUIET)
  if(symbols MATCHES "_ZNSt6localeD1Ev")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The newest GLIBCXX_3.4.N symbol version a GCC major version's headers may need.
set(efield_glibcxx_of_gcc 9:26 10:28 11:29 12:30 13:32 14:33 15:34)

if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_NM AND NOT EFIELD_SHARED_CXX_RUNTIME STREQUAL "OFF")
  efield_probe_embedded_libstdcxx(embedded "")
  if(embedded STREQUAL "TRUE")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                    OUTPUT_VARIABLE shared OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT IS_ABSOLUTE "${shared}" OR NOT EXISTS "${shared}")
      find_library(EFIELD_LIBSTDCXX_SHARED NAMES libstdc++.so.6)
      set(shared "${EFIELD_LIBSTDCXX_SHARED}")
    endif()
    string(REGEX MATCH "^[0-9]+" gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
    set(needed "")
    foreach(pair ${efield_glibcxx_of_gcc})
      string(REPLACE ":" ";" pair "${pair}")
      list(GET pair 0 major)
      if(major STREQUAL gcc_major)
        list(GET pair 1 needed)
      endif()
    endforeach()
    set(newest 0)
    if(shared AND EXISTS "${shared}")
      file(STRINGS "${shared}" versions REGEX "^GLIBCXX_3\\.4\\.[0-9]+$")
      foreach(v ${versions})
        string(REGEX REPLACE "^GLIBCXX_3\\.4\\." "" n "${v}")
        if(n GREATER newest)
          set(newest ${n})
        endif()
      endforeach()
    endif()
    if(NOT shared OR NOT EXISTS "${shared}")
      message(WARNING "efield: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared libraries and no "
                      "libstdc++.so.6 was found; efield keeps a private copy (not exported)")
    elseif(NOT needed OR newest LESS needed)
      message(WARNING "efield: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared libraries; ${shared} "
                      "(GLIBCXX_3.4.${newest}) is older than GCC ${CMAKE_CXX_COMPILER_VERSION} needs or the "
                      "compiler is unknown here, so efield keeps a private copy (not exported)")
    else()
      efield_probe_embedded_libstdcxx(still "${shared}")
      if(still STREQUAL "FALSE")
        set(EFIELD_CXX_RUNTIME_LINK "${shared}")
        message(STATUS "efield: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared libraries; "
                       "linking the shared ${shared} instead")
      else()
        message(WARNING "efield: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared libraries and "
                        "linking ${shared} did not prevent it (probe: ${still}); efield keeps a private copy (not exported)")
      endif()
    endif()
  elseif(embedded STREQUAL "FAILED")
    message(STATUS "efield: the C++ runtime probe did not link; shared objects link as the compiler does")
  endif()
endif()
