break inner
commands
print k
bt
end
break outer
commands
silent
print a
end
