import FuzzDriver

FuzzDriver.run(.payload)
