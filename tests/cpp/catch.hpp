// Catch2 v2 (one header) or v3 (split headers), whichever is installed.
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define DNNMEM_CATCH3 1
#else
#include <catch2/catch.hpp>
#endif
