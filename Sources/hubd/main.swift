print("hubd")
