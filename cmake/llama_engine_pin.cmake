# The one place the llama.cpp that the oracle tests run against is pinned. tools/llama-engine
# reads these three lines too (it greps them), so moving the pin is one edit here, then
# `tools/llama-engine` (or `tools/test`, which calls it) and a rebuild.
#
# node-llama-cpp publishes a prebuilt CPU libllama per platform on the npm registry, and ships
# the source of the llama.cpp release it was built from as a git bundle (llama/gitRelease.bundle):
# the headers the oracle compiles against come from that bundle, at the commit below.
set(KVCAT_LLAMA_NPM_VERSION "3.21.1")
set(KVCAT_LLAMA_RELEASE "v0.4.0")
set(KVCAT_LLAMA_COMMIT "80fb11ac73e66d89eae2c6a91d8a77428fa733ed")
