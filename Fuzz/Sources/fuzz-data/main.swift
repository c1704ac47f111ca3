import FuzzDriver

FuzzDriver.run(.data)
