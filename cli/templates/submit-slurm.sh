#!/bin/sh
# Cohort's offline job for Slurm, written by `cohort offline --submit slurm`. Copy it to
# $XDG_CONFIG_HOME/cohort/submit-slurm.sh (~/.config/cohort/submit-slurm.sh) and edit it
# (account, partition, modules) for the next jobs; {{...}} are filled in by cohort.
#SBATCH --job-name={{name}}
#SBATCH --ntasks={{ranks}}
{{nodes_line}}
{{time_line}}
#SBATCH --chdir={{workdir}}
#SBATCH --output={{name}}.%j.out

{{command}}
