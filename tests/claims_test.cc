#include "claims.h"

#include <gtest/gtest.h>
