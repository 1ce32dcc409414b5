#include "harness.h"
int main(void){ SECTION("x"); return hd_test_finish(); }
