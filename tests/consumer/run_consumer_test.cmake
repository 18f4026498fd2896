# Installs the build tree into WORK_DIR/prefix, configures the consumer against it, builds, runs.
# CONSUMER_PROGRAM (default: consumer) and CONSUMER_ARGS name what runs, in the consumer's build folder.
if(NOT DEFINED CONSUMER_PROGRAM)
  set(CONSUMER_PROGRAM consumer)
endif()
string(JOIN ";" run_step "${WORK_DIR}/build/${CONSUMER_PROGRAM}" ${CONSUMER_ARGS})
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
    "${CMAKE_COMMAND};--install;${EFIELD_BUILD_DIR};--prefix;${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};-S;${CONSUMER_SOURCE_DIR};-B;${WORK_DIR}/build;-G;${GENERATOR};-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
    "${run_step}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${rc}): ${step}")
  endif()
endforeach()
