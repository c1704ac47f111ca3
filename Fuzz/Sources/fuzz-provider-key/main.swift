import FuzzDriver

FuzzDriver.run(.providerKey)
