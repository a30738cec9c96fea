/*
 * ISPC's task model in OpenCL C, for kernels that xpurt launches ISPCRT-style
 * (queue.launch(kernel, params, d0, d1, d2)): a launch of d0 x d1 x d2 tasks runs one
 * work-group per task, and the work-items of a group are the task's program instances.
 *
 *   taskIndex    = the group's linear index      taskCount    = the number of groups
 *   taskIndex0-2 = get_group_id(0..2)            taskCount0-2 = get_num_groups(0..2)
 *   programIndex = get_local_id(0)               programCount = get_local_size(0)
 *
 * An ISPCRT-style kernel takes one argument, a pointer to its parameter block:
 *
 *   XPURT_TASK_KERNEL(8) void scale(global struct Params *p) { ... }
 *
 * The number in XPURT_TASK_KERNEL is programCount (reqd_work_group_size); without it the
 * runtime chooses one.
 */
#ifndef XPURT_TASK_MODEL_H
#define XPURT_TASK_MODEL_H

#define taskIndex0 ((int)get_group_id(0))
#define taskIndex1 ((int)get_group_id(1))
#define taskIndex2 ((int)get_group_id(2))
#define taskCount0 ((int)get_num_groups(0))
#define taskCount1 ((int)get_num_groups(1))
#define taskCount2 ((int)get_num_groups(2))
#define taskIndex (taskIndex0 + taskCount0 * (taskIndex1 + taskCount1 * taskIndex2))
#define taskCount (taskCount0 * taskCount1 * taskCount2)
#define programIndex ((int)get_local_id(0))
#define programCount ((int)get_local_size(0))

#define XPURT_TASK_KERNEL(program_count) \
  kernel __attribute__((reqd_work_group_size(program_count, 1, 1)))

/* for (int i = programIndex + first; i < end; i += programCount): ISPC's foreach over one
 * task's share of [first, end). */
#define xpurt_foreach(i, first, end) \
  for (int i = (first) + programIndex; i < (end); i += programCount)

#endif /* XPURT_TASK_MODEL_H */
