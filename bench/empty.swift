// The reference for bench/startup.sh: a Swift program that does nothing, compiled and linked as the
// tools are (-O, the Swift runtime linked statically).
