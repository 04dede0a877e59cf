/* git and cpu strings for the JSON lines (sysinfo.h). */
#include "sysinfo.h"

#include "bench_git.h" /* BENCH_GIT, written at every build (git_describe.cmake) */

#include <stdio.h>
#include <string.h>

const char *bench_git(void)
{
    return BENCH_GIT;
}

const char *bench_cpu(void)
{
    static char name[128];
    if (name[0] != '\0') {
        return name;
    }
    strcpy(name, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return name;
    }
    char line[256];
    while (fgets(line, sizeof(line), f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            colon += colon[1] == ' ' ? 2 : 1;
            snprintf(name, sizeof(name), "%.*s", (int)strcspn(colon, "\n"), colon);
            break;
        }
    }
    fclose(f);
    return name;
}
