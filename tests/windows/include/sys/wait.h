/* tests/windows/include/sys/wait.h -- Windows test builds: no fork() and no waitpid().  Test
 * programs that include this for their ISA-cap children run those children with _spawnl
 * instead (tests/unit/conv_case.h); ones that call fork() are not built
 * (tests/windows-skip.tsv). */
