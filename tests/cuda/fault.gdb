set pagination off
set confirm off
run
cuda kernel block thread
print idx
print p
info cuda kernels
continue
