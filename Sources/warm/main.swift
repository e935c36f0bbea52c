print("warm")
