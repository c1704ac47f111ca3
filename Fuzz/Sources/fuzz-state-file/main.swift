import FuzzDriver

FuzzDriver.run(.stateFile)
