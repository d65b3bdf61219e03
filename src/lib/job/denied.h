/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * denied.h - a job's denied device opens, for the log at its end (private
 * to libdevns_job).
 *
 * The job's filter counts what it denies, per device and access, in a map
 * the program holds (dev/devfilter.h): it goes with the program, so the
 * counts must be read before release detaches it.  The log gets one line
 * per denied device, the accesses summed: "denied 3 opens of c 195:1
 * (/dev/nvidia1)", the name found in the node's /dev when it has one.
 */
#ifndef DEVNS_DENIED_H
#define DEVNS_DENIED_H

#include <stdbool.h>
#include <stdint.h>

#include "job/node.h"
#include "util/report.h"

/*
 * In the process that set the job up (the extern slurmstepd): keep a
 * reference to its program prog_fd (a duplicate), so that denied_report
 * still reads the counts when Slurm has removed every cgroup the program
 * was on before the release (26.05's extern step releases after
 * proctrack/cgroup removed its cgroups).  One job per process: a later
 * call replaces the reference; denied_report for that job drops it.
 */
void denied_hold(uint32_t job_id, int prog_fd);

/*
 * Reports (report_notice) the denials counted by the job's filter, read
 * from the program denied_hold kept and from every cgroup that carries it
 * (the node's backend walks them; a program on several cgroups is read
 * once); name_job puts "job <id>: " before each line, for a report that
 * does not name the job itself.  Nothing is reported for a job without
 * a filter, or denials.  Returns the number of lines reported, or -1 with
 * errno when a program could not be read (a warning in rep: the record is
 * lost, the release goes on).
 */
int denied_report(const struct jobct_node *node, uint32_t job_id,
		  bool name_job, struct report *rep);

#endif /* DEVNS_DENIED_H */
