# Shared settings for Kubus scripts (sourced).
# Open MPI refuses to run as root unless told; CI and the demo run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 2 cores, 4 ranks: allow oversubscription and keep Open MPI off the network.
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1
# The point-to-point layer these transports use (Open MPI picks it here anyway): named, each
# MPI_Init skips opening the cm layer and probing its network libraries, 0.2 s of every launch
# (4 ranks: 0.64 -> 0.43 s).
export OMPI_MCA_pml=ob1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
# hwloc's gl/opencl plugins, loaded by Open MPI at start-up, connect to every local X display;
# an Xvfb that goes away meanwhile (the GUI tests') makes Xlib exit the MPI process.
export HWLOC_COMPONENTS=-gl,-opencl
