import FuzzDriver

FuzzDriver.run(.apnsError)
