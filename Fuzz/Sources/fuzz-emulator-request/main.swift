import FuzzDriver

FuzzDriver.run(.emulatorRequest)
