import FuzzDriver

FuzzDriver.run(.config)
