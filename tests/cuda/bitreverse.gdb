set pagination off
set confirm off
set breakpoint pending on
break bitreverse.cu:15
run
info cuda devices
info cuda kernels
info cuda blocks
info cuda threads
cuda kernel 0 block (0,0,0) thread (53,0,0)
print idx
print sdata[idx]
bt
cuda device sm warp lane
stepi
next
info cuda threads
continue
cuda kernel block thread
print idx
print sdata[idx]
continue
