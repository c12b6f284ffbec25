# lab/harris/harris.mk: Harris's seven reduction kernels (lab/harris/harris.cu,
# -DKERNEL=K picks one), float in build/harris/ and uint32 in build/exact/harris/,
# measured beside steps 01-07 in the exact build by make harris.
HARRIS := 1 2 3 4 5 6 7
$(foreach k,$(HARRIS),$(call prog,$(BUILD)/harris/harris$(k),lab/harris/harris.cu,float,-DKERNEL=$(k),,,,harris-kernels)\
  $(call prog,$(BUILD)/exact/harris/harris$(k),lab/harris/harris.cu,exact,-DKERNEL=$(k),,,,harris-kernels))
## make harris-kernels ## lab: the seven kernels, in build/harris/ (float) and build/exact/harris/
harris: $(HARRIS:%=$(BUILD)/exact/harris/harris%) $(foreach s,01 02 03 04 05 06 07,$(BUILD)/exact/step$(s))  ## lab: Harris's seven classic kernels beside steps 01-07, and racecheck on kernels 5 and 6 (results/<gpu>/harris.md; lab/harris/)
	python3 lab/harris/harris.py
