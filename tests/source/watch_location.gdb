define showsq
  print $arg0 * $arg0
  if $arg0 > 1
    echo big\n
  end
end
define two
echo 2\n
end
show user showsq
show user
show user nosuch
