# Runs xpurt_mpi_rank_failure (tests/mpi/rank_failure.cpp) as RANKS ranks and checks that every
# rank but the one that killed itself failed, naming it, within 30 seconds. mpiexec's
# --enable-recovery keeps Open MPI from ending the job itself when a process dies, so that what
# is tested is xpurt_mpi's own detection.
#   cmake -DMPIEXEC=... -DPROGRAM=... -DRANKS=N -P rank_failure.cmake
execute_process(
  COMMAND ${MPIEXEC} --oversubscribe --enable-recovery -np ${RANKS} ${PROGRAM} 5000
  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120 RESULT_VARIABLE result)
math(EXPR survivors "${RANKS} - 2")
math(EXPR dead "${RANKS} - 1")
foreach(rank RANGE 0 ${survivors})
  if(NOT out MATCHES "rank ${rank}: failed after ([0-9]+)[.][0-9] s naming the dead rank: [^\n]*rank ${dead} ")
    message(FATAL_ERROR "rank ${rank} did not fail naming rank ${dead} (mpiexec: ${result}):\n${out}\n${err}")
  endif()
  if(CMAKE_MATCH_1 GREATER_EQUAL 30)
    message(FATAL_ERROR "rank ${rank} took ${CMAKE_MATCH_1} s to notice rank ${dead} had died:\n${out}")
  endif()
endforeach()
message(STATUS "${out}")
