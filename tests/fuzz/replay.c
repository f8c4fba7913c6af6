/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzz target's corpus without libFuzzer: every file named on the
 * command line (or found in a directory named there) is passed once to
 * LLVMFuzzerTestOneInput. Prints one TAP line per input, so that the test
 * runner counts them; a crash or sanitizer report fails the run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int nr_run;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long len;

	if (!f) {
		printf("not ok - %s: cannot open\n", path);
		return 1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		printf("not ok - %s: cannot size\n", path);
		return 1;
	}
	data = malloc(len ? (size_t)len : 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
		free(data);
		fclose(f);
		printf("not ok - %s: cannot read\n", path);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)len);
	free(data);
	printf("ok %d - %s\n", ++nr_run, path);
	fflush(stdout);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int failed = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("not ok - %s: cannot open directory\n", dir);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		if (asprintf(&names[n++], "%s/%s", dir, de->d_name) < 0)
			abort();
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		failed |= replay_file(names[i]);
		free(names[i]);
	}
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	int failed = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			failed |= replay_dir(argv[i]);
		else
			failed |= replay_file(argv[i]);
	}
	return failed;
}
