// SPDX-License-Identifier: GPL-2.0
/*
 * stallmon: how long this VM stood still.
 *
 *   stallmon [-p PERIOD_MS] [-t THRESHOLD_MS] [-r]
 *
 * Sleeps PERIOD_MS (default 10) at a time on CLOCK_MONOTONIC and prints
 * one line for every wake-up that came more than THRESHOLD_MS (default
 * 30) late:
 *
 *   SROCE-STALL <ms late> at <CLOCK_MONOTONIC s>
 *
 * Under TCG the guest's clock follows the host's, so a VM that the host
 * did not run (a busy machine, a stopped QEMU process) wakes late by as
 * long as it stood still: what a guest's RDMA timers saw too.  With -r it
 * runs at the highest SCHED_FIFO priority, so that the guest's own busy
 * threads do not make it late (a kernel section that does not give up the
 * CPU still does).  On SIGTERM
 * or SIGINT it prints "SROCE-STALL-SUMMARY <stalls> <total ms> <max ms>"
 * and exits.  Output is line-buffered, so it can be read while it runs.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long long period_ms = 10, threshold_ms = 30, total_ms = 0, max_ms = 0, stalls = 0;
	struct sigaction sa;
	int opt, rt = 0;

	while ((opt = getopt(argc, argv, "p:t:r")) != -1) {
		switch (opt) {
		case 'p':
			period_ms = atoll(optarg);
			break;
		case 't':
			threshold_ms = atoll(optarg);
			break;
		case 'r':
			rt = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-p PERIOD_MS] [-t THRESHOLD_MS] [-r]\n", argv[0]);
			return 2;
		}
	}
	if (period_ms <= 0 || threshold_ms <= 0) {
		fprintf(stderr, "stallmon: the period and the threshold are positive\n");
		return 2;
	}
	if (rt) {
		struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
			perror("stallmon: SCHED_FIFO");
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	while (!stop) {
		struct timespec d = { period_ms / 1000, (period_ms % 1000) * 1000000 };
		long long t0 = now_us(), late_ms;

		if (nanosleep(&d, NULL) != 0 && stop)
			break;
		late_ms = (now_us() - t0) / 1000 - period_ms;
		if (late_ms > threshold_ms) {
			stalls++;
			total_ms += late_ms;
			if (late_ms > max_ms)
				max_ms = late_ms;
			printf("SROCE-STALL %lld at %.3f\n", late_ms, now_us() / 1e6);
		}
	}
	printf("SROCE-STALL-SUMMARY %lld %lld %lld\n", stalls, total_ms, max_ms);
	return 0;
}
