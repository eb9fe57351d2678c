# Sourced by script_lang.cmds: blocks read line by line.
define showsq
  print $arg0 * $arg0
  echo argc=
  output $argc
  echo \n
end
document showsq
Print the square of the argument.
Second line of the documentation.
end
define noargs
  echo no arguments here\n
end
set $i = 0
while $i < 4
  if $i == 1
    echo one\n
  else
    if $i == 3
      printf "three %d\n", $i * 10
    else
      printf "i=%d\n", $i
    end
  end
  set $i = $i + 1
end
showsq 7
showsq 5 extra
noargs
help showsq
help noargs
break square if v >= 2
commands
  silent
  printf "square(%d) counter=%d\n", v, counter
  if v == 3
    echo last call\n
  end
  continue
end
