// Catch2 v2 needs one translation unit with its main; v3 brings Catch2WithMain.
#if !__has_include(<catch2/catch_all.hpp>)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
