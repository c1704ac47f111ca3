import FuzzDriver

FuzzDriver.run(.registration)
