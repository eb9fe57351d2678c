#!/bin/sh
# Cohort's offline job for PBS, written by `cohort offline --submit pbs`. Copy it to
# $XDG_CONFIG_HOME/cohort/submit-pbs.sh (~/.config/cohort/submit-pbs.sh) and edit it (queue,
# account, modules) for the next jobs; {{...}} are filled in by cohort.
#PBS -N {{name}}
#PBS -l select={{nodes}}:mpiprocs={{per_node}}
{{time_line}}
#PBS -j oe

cd {{workdir}}
{{command}}
