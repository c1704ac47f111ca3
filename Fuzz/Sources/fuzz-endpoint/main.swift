import FuzzDriver

FuzzDriver.run(.endpoint)
