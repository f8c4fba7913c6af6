/* SPDX-License-Identifier: MIT */
/*
 * `forker LIBPATH MS`: forks a child that dlopens LIBPATH and spins MS
 * milliseconds in its spinlib_work(), while the parent waits. Tests check
 * that the child's FORK/COMM/EXIT and the library's MMAP2 are recorded and
 * that samples land in the library.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long (*work)(double);
	void *lib;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: forker LIBPATH MS\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		lib = dlopen(argv[1], RTLD_NOW);
		if (!lib) {
			fprintf(stderr, "forker: %s\n", dlerror());
			_exit(3);
		}
		*(void **)&work = dlsym(lib, "spinlib_work");
		if (!work)
			_exit(4);
		printf("child %d: %lu\n", (int)getpid(), work(atof(argv[2]) / 1000.0) & 1);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
