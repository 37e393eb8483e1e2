// The program the layer_check_* executables link around one layer's whole library and the
// libraries below it: the link fails if that layer calls into a layer above it.
int main() { return 0; }
